"""gui-gym: Gymnasium environments for training GUI agents with reinforcement learning.

Importing the package registers the env ids with Gymnasium::

    import gymnasium as gym
    import gui_gym
    env = gym.make("GuiAndroid-v0", task="ContactsAddContact")
"""

from gymnasium.envs.registration import register, registry

__version__ = "0.1.0"

if "GuiAndroid-v0" not in registry:
    register(id="GuiAndroid-v0", entry_point="gui_gym.android.env:GuiAndroidEnv", disable_env_checker=False)
if "GuiAndroidDevice-v0" not in registry:
    register(
        id="GuiAndroidDevice-v0",
        entry_point="gui_gym.android.device_env:GuiAndroidDeviceEnv",
        disable_env_checker=False,
    )
if "ALFWorld-v0" not in registry:
    register(id="ALFWorld-v0", entry_point="gui_gym.alfworld.env:ALFWorldEnv", disable_env_checker=False)
if "WebShop-v0" not in registry:
    register(id="WebShop-v0", entry_point="gui_gym.webshop.env:WebShopEnv", disable_env_checker=False)
if "GuiExperience-v0" not in registry:
    register(id="GuiExperience-v0", entry_point="gui_gym.experience.env:GuiExperienceEnv", disable_env_checker=False)

__all__ = ["__version__"]
